"""Front ends: the Textual TUI (default), line mode (--plain) and print mode (-p)."""
