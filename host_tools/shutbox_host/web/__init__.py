"""The box in a web page: the real firmware on rp2040js in the browser (shutbox web)."""
