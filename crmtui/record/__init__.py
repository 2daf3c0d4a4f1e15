"""crmtui.record package."""
