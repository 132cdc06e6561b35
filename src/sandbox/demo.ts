// placeholder, replaced below
export async function runSandboxDemo(_o: { dir?: string; write: (t: string) => void; progress: (l: string) => void }): Promise<void> {}
