"""Test doubles shared across test folders (fake OpenAI-compatible server)."""
