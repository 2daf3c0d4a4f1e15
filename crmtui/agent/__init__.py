"""crmtui.agent package."""
