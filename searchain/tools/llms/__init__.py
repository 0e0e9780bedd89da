"""Chat models by spec: llama.cpp (SmolLM2, GGUF), OpenAI-compatible servers, providers, scripts."""
