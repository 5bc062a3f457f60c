"""pinn placeholder."""
