"""Tools the model can call. Names and parameters are a contract scripts rely on."""
