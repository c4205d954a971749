"""The box's game log on the PC: recording it from USB (log), reading and explaining it."""
