"""The army builder: armies, units, weapons, their forms, history, export and print."""
