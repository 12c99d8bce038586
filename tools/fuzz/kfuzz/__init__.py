"""kfuzz: kschedctl's seeded mutation fuzzer (see tools/fuzz/README.md)."""
