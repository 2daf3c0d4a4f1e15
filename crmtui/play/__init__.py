"""The play session core: browsing model, navigation history and timing (no UI imports).

The Play and Watch screens render these models; replay folds recordings back into them.
"""
