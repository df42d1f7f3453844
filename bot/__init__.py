"""gpu-advisor: which GPU to buy or rent for deep learning, and why (中文 / English)."""

__version__ = "0.1.0"
