"""Facts about the MLIR scalar types the translator works with."""

FLOAT_RANK = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}
INT_TYPES = ("i1", "i8", "i16", "i32", "i64")


def is_float(t):
    return t in FLOAT_RANK or t.startswith(("f8", "f4"))


def int_width(t):
    return 64 if t == "index" else int(t[1:])


def float_bits(t):
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(t, 4 if t.startswith("f4") else 8)
