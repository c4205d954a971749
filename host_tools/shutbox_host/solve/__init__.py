"""The exact solver of every variant, its command, the generated tables and move advice."""
