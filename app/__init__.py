"""BrikForge: army builder and battle calculator for brick wargames."""
