"""Setup for the cli tests: the shared pieces are in tests/helpers.py and tests/conftest.py."""
