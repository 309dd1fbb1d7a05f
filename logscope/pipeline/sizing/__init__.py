"""Sizing: KV sizing and the communication cells, per release and calibration."""
