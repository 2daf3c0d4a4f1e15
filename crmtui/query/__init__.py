"""crmtui.query package."""
