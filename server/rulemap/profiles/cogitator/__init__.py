"""The default model: Cogitator's Project Instructions loader (the first seed).

`profile` answers explain and the profile's findings; `load` is the load in progress (a chain of
shared links); `budget_check` (budget-overflow) and `duplicates` (duplicate-load) are the
findings only this loading model defines.
"""

from rulemap.profiles.cogitator.load import BudgetPass, Load
from rulemap.profiles.cogitator.profile import CogitatorProfile

__all__ = ["BudgetPass", "CogitatorProfile", "Load"]
