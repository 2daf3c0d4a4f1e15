"""crmtui: play, watch, record and compare work on the CRMArena benchmark, offline."""

__version__ = "0.1.0"
