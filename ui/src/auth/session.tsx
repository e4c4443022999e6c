import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, getToken, onUnauthorized, setToken } from "../api/client";
import type { Me } from "../api/types";

interface Session {
  token: string | null;
  me: Me | undefined;
  signIn(token: string): void;
  signOut(): void;
  can(permission: string): boolean;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setTokenState] = useState<string | null>(getToken());
  const client = useQueryClient();
  const signOut = useCallback(() => {
    setToken(null);
    setTokenState(null);
    client.clear();
  }, [client]);
  const signIn = useCallback((t: string) => {
    setToken(t);
    setTokenState(t);
  }, []);
  // Any 401 (a revoked or expired token) ends the session and shows sign-in again.
  useEffect(() => onUnauthorized(signOut), [signOut]);
  const me = useQuery({
    queryKey: ["me", token],
    queryFn: () => api<Me>("/me"),
    enabled: token !== null,
    retry: false,
  });
  const can = (p: string) => me.data?.permissions.includes(p) ?? false;
  return (
    <SessionContext.Provider value={{ token, me: me.data, signIn, signOut, can }}>{children}</SessionContext.Provider>
  );
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
