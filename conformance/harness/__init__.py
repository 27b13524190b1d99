"""Machinery every live scenario shares, whatever the protocol (issue 12 grows it here)."""
