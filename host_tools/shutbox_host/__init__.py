# shutbox_host: the PC side of shutbox (solver, tables, simulator, flashing, benchmarks).
"""Host tools for shutbox; they import the same `shutbox` package the Pico runs."""
