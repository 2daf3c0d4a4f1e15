"""The play session core: browsing model, navigation history and timing (no UI imports).

The Play and Watch screens render these models; replay (:mod:`crmtui.review.replay`) folds
recordings back into them. Above record, scoring, query, org and data; below agent and review.
"""
