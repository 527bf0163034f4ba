a file named like the domain
