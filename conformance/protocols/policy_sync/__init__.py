"""PIP-136 policy sync on real clusters (docs/findings.md F-136-*)."""
