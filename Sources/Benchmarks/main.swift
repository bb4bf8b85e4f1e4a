import ReferenceImageCore

print("benchmarks")
