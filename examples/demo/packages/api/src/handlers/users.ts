export const users = () => [];
