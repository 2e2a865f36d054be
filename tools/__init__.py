"""Checks of the repository's own code that no compiler makes (run by scripts/test.sh)."""
