"""crmtui.scoring package."""
