decoy at the root
