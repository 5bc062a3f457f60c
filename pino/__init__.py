"""pino placeholder."""
