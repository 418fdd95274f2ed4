package accel
