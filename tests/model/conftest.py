"""Setup for the model tests: the shared pieces are in tests/helpers.py and tests/conftest.py."""
