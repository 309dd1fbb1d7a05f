"""Where the jobs run: `local` (a pool of worker processes on this machine) or `ray` (tasks on a Ray cluster).
Both run worker.analyse_job on each job and yield its rows as jobs finish, in any order."""
