"""Subcommands of this area; see pulsar_conformance/cli.py for how areas register."""


def register(commands) -> None:
    """No subcommands yet: the area's owner adds them here."""
