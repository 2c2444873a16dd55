"""The TileLang corpus harness (benchmark/tilelang_corpus.py): selecting
TileLang's programs from a checkout, rewriting their import lines, driving
them in subprocesses and tabulating how far each kernel gets."""
