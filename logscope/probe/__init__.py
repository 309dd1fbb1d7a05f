"""`logscope probe`: measure each communication mechanism's memory on the user's own GPUs.

Needs PyTorch with CUDA (and nvidia-ml-py): the optional extra `probe` (from a clone: `pip install '.[probe]'`). The stage
bookkeeping (stages.py) and the calibration file (logscope/pipeline/sizing/calibration.py) are plain Python and tested on
the CPU; worker.py runs on the GPUs, launcher.py starts one worker per GPU and bounds every stage in time.
"""
