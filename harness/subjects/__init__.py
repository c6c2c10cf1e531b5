"""The two subjects under comparison, behind one signature returning Outcomes."""
