// Placeholder until the simulated policy lands.
