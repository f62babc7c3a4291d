"""Local embedding models run with onnxruntime: MiniLM (with its derived int8 weights) and multilingual e5."""
