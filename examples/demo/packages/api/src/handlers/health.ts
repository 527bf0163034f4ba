export const health = () => "ok";
