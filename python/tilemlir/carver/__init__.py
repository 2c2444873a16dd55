"""TileLang's tilelang.carver (hardware-aware tile-size recommendation), as
far as its programs use it: the GPU's SM count (`carver.arch.driver`); the
recommendation templates themselves are not available (a clear error when
called)."""
