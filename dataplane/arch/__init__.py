"""arch layer."""
