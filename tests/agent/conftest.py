"""Fixtures for the agent tests. The scripted OpenAI-compatible server (`fake_openai`)
lives in tests/conftest.py, shared with tests/e2e; provider keys are removed for every
test there too."""
