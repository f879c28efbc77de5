module gpuprover.dev/gpuprover

go 1.19
