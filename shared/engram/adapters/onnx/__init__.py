"""Local embedding models run with onnxruntime (MiniLM, multilingual e5) and the int8 model they share."""
