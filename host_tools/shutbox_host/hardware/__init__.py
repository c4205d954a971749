"""Hardware generators: the pin map, the reference card and the enclosure."""
