package dev.gitopshq.hub.inventory;

import dev.gitopshq.activities.inventory.InventoryMapper;
import dev.gitopshq.activities.inventory.InventoryStore;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/** Wires the inventory store: the gateway writes it, the REST API reads it. */
@Configuration
public class InventoryConfig {
  @Bean
  InventoryStore inventoryStore(InventoryMapper mapper, TransactionTemplate tx, Clock clock) {
    return new InventoryStore(mapper, tx, clock);
  }
}
