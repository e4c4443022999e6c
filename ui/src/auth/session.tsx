import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, endSsoSession, getToken, onUnauthorized, setToken, takeSsoSession } from "../api/client";
import type { Me } from "../api/types";
import { queryKeys } from "../api/keys";

interface Session {
  token: string | null;
  me: Me | undefined;
  signIn(token: string): void;
  signOut(): void;
  can(permission: string): boolean;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setTokenState] = useState<string | null>(() => {
    takeSsoSession();
    return getToken();
  });
  const client = useQueryClient();
  const clear = useCallback(() => {
    setToken(null);
    setTokenState(null);
    client.clear();
  }, [client]);
  // Signing out revokes an SSO session at the hub; a 401 only forgets the (dead) token.
  const signOut = useCallback(() => {
    const current = getToken();
    clear();
    if (current) void endSsoSession(current);
  }, [clear]);
  const signIn = useCallback((t: string) => {
    setToken(t);
    setTokenState(t);
  }, []);
  // Any 401 (a revoked or expired token) ends the session and shows sign-in again.
  useEffect(() => onUnauthorized(clear), [clear]);
  const me = useQuery({
    queryKey: queryKeys.me(token),
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
