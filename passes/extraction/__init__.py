"""Graph program extraction: the host/device partition and the split of device functions."""
