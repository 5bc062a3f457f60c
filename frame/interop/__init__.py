"""JAX interop: lowering to JAX, importing from JAX, and the derivative oracle. The only place frame imports JAX."""
