module gpuprover.dev/examples/lde_checksum

go 1.19

require gpuprover.dev/gpuprover v0.0.0

replace gpuprover.dev/gpuprover => ../../bindings/go
