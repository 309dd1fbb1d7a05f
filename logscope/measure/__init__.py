"""Measuring a launch and a running server: `logscope run` (wrap a launch, sample NVML at its phase lines) and
`logscope watch` (read a running SGLang server's endpoints). An edge of the layers: it calls the pipeline."""
