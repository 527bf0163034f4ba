"""Rulemap: the live graph of coding-agent instruction files."""

__version__ = "0.1.0"
