"""crmtui.org package."""
