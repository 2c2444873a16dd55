"""tilelang.carver.roller: not available (see tilemlir.carver.arch)."""
