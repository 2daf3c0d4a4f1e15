"""Instances, schemas and task loaders (the only package that imports ``datasets``)."""
